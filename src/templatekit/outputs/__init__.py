"""What a render gives back: the encoders of image formats (PNG by the library's own
writer, JPEG and WebP by Pillow) and the result they are wrapped in."""
