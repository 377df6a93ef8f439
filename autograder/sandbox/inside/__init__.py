"""The standard-library scripts that run inside the sandbox (mounted at /opt/grader/): the
runner and the zygote that forks it. Never imported by the kit's other code but for their
constants.
"""
