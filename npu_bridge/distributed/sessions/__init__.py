"""Training as ranks: variable broadcast, NPUEstimator's rank config, Sessions on the rank's server, the watchdog."""
