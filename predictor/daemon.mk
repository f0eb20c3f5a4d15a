# predictor/daemon.mk
