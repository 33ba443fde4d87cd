# src/proc/list.mk
