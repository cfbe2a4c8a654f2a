// The ptc dev workbench (placeholder).
