"""The `discuss` command line: `entry` answers `status` before anything heavy loads; `app` is the rest."""
