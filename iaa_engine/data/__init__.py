"""Layer 2: the data model (:class:`~iaa_engine.Annotations`) and its converters: readers, long / wide / count
tables. Builds on the statistics below it."""
