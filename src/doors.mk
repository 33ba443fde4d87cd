# src/doors.mk
