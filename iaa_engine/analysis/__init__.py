"""Layer 5: analyses built on coefficients and their inference: gold labels, hierarchical and
frequency-stratified agreement, missingness simulation."""
