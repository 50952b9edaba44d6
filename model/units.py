"""Floor 0 — unit constants. Data files use GB/s, TFLOP/s, MHz for readability; the model works in SI."""
KB = 1e3
MB = 1e6
GB = 1e9
TB = 1e12
KIB = 1024.0
GIB = 1024.0 ** 3
TERA = 1e12
GIGA = 1e9
MEGA = 1e6
US = 1e-6
NS = 1e-9
MS = 1e-3
SECONDS_PER_HOUR = 3600.0
