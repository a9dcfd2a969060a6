# dist.mk: platform builds and packages (issue "dist"); not built yet.
.PHONY: dist dist-check
