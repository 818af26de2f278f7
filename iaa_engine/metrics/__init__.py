"""Layer 3: the coefficients (SPA, the kappa family, Krippendorff's alpha, percentage agreement, agreement by
group), each a function of the data model's sufficient statistics."""
