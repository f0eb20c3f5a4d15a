# predictor/analysis.mk
