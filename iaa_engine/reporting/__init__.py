"""Layer 6: the report (every metric of a data set) and its presentations (text, JSON, HTML); presentation takes a
computed report and never recomputes."""
