"""Layer 0, used by every other: validation and the undefined-result policy, option choices, result
containers shared by the layers above, progress bars. Imports nothing from iaa_engine."""
