"""Pure rules several protocols share: the agreement meter and the convergence tests."""
