"""`doctor`: a list of checks, one readable line each (OK / WARN / FAIL and why), or JSON for monitoring.

Checks are grouped; each area contributes a group (`dialogue`, `ari`, `database`, `speech`, `system`).
Exit status: 0 when nothing FAILs, 1 otherwise.
"""
