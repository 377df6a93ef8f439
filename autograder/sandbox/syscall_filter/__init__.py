"""The seccomp allowlist: the policy, the system call table, compiled to BPF.
"""
