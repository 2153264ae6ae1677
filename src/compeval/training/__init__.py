"""One trainer for every trained head: torch, float32, seeded, on an explicit device (docs/architecture.md).
``settings`` imports no torch, so task discovery stays cheap."""
