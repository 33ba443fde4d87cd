# src/proc/detail.mk
