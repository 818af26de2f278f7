"""Layer 4: inference on the coefficients (bootstrap, delta-method and jackknife variances, standard errors)."""
