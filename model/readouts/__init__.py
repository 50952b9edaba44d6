"""Floor 5 — everything a person reads: each number formatted once with its label and help, the
sentences, the derivations, the roofline's and the chip's texts."""
