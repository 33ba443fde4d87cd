# Hardening: faults, awkward processes, hostile input.
TESTS += tests/e2e/faults.sh
EXTRA_DIST += tests/e2e/faults.sh
