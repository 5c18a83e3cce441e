"""Assets (images, fonts, clips): fetched and decoded under the safety limits.

The network and SVG modules are imported on first use, so that a render of local
files does not pay for loading them.
"""

from templatekit.assets.loader import AssetLoader, LoadedImage, MemoryAssetLoader
from templatekit.assets.policy import ALLOW_ENV, address_refusal

__all__ = ["ALLOW_ENV", "AssetLoader", "LoadedImage", "MemoryAssetLoader", "address_refusal"]
