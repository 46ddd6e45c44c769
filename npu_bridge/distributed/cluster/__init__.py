"""Where ranks come from: the rank layout, one server per rank, GPUs, bounded waits for peers."""
