# src/core/local.mk
