"""Limits and who runs: resource limits, sandbox user ids, cgroups and their teardown, a run's
process and scratch folder.
"""
