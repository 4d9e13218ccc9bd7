"""Athaus's own stored images (photos and floor plans of listings): checked, stripped of metadata, kept under a
content id. `ImageStore` is the interface; `FolderStore` keeps them in a folder (by default under the data directory,
one folder every instance of a deployment shares)."""

from shared.images.store import MAX_IMAGE_BYTES, NAME, SIZES, FolderStore, ImageRefused, ImageStore, StoredImage

__all__ = ["MAX_IMAGE_BYTES", "NAME", "SIZES", "FolderStore", "ImageRefused", "ImageStore", "StoredImage"]
