# predictor/cli.mk
