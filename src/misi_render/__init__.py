"""misi_render: numba rasterizer for labelled ball-and-stick / CPK molecule images."""
