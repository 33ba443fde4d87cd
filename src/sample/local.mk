# src/sample/local.mk
