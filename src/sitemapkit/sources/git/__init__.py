"""Git history: one batched pass over the pages' sources (``dates``, ``history``),
its cache, ignore-revs, the questions it asks while it runs, and the work started ahead."""
