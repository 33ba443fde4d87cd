# tests/doors.mk
