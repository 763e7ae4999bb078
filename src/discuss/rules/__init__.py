"""Pure rules several protocols share: the agreement meter, the convergence tests, and the spread of a sample."""
