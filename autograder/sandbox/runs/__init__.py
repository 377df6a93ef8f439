"""One submission's runs: execution with restarts, CPU deadlines, the runner's lines read into
typed records, progress, the outbox, the tutor's paths kept out of texts.
"""
