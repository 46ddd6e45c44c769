"""Ops across ranks: all-reduce, broadcast, allgather, reduce_scatter, barrier, process groups."""
