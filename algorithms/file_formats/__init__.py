"""File formats: solver checkpoints (npz with a JSON header) and policies as JSON, written
atomically and read with one-line errors."""
