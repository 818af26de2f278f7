"""Layer 7: the same statistics on other execution engines (Dask, DuckDB, SQL databases)."""
