"""VSP/OSCE dialogue scoring analysis: schema, loaders, simulator, mixed models, rubric scoring, report."""
