"""Layer 1: sufficient statistics of integer codes (count tables, pair tables, exact sums over items, the
difference functions of the levels of measurement). Pure array code: no data model, no formula of a coefficient."""
