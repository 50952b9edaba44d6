"""Floor 3 — reading and writing files safely: assets/, hardware files, Hugging Face configs,
scenario files, the user's custom entries. Builds catalogue values; computes nothing."""
