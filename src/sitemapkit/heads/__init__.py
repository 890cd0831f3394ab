"""A built page's head: robots, refresh, canonical, alternates and generator, read by a
small start-tag tokenizer. Every host, the validator and the hot unit's many-page scan
read these signals, so this sits below them all."""
