"""Floor 1 — the parts as values: accelerators, models, precisions, engines and the catalogue
that resolves their ids. No file reading (model/files/ reads assets/), no physics."""
