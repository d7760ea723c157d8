# Pillow's everyday work, the same under skillrun's WebAssembly Python
# and Debian's python3-pil: drawing, the PNG, JPEG, GIF, BMP and TIFF
# codecs, resampling, filters and statistics. packages_test.go compares
# stdout and every file written with a native run.
import hashlib

import PIL
from PIL import Image, ImageChops, ImageDraw, ImageFilter, ImageOps, ImageStat, features

print("Pillow", PIL.__version__, "jpg", features.check("jpg"), "zlib", features.check("zlib"))
im = Image.new("RGB", (120, 80), "white")
d = ImageDraw.Draw(im)
d.rectangle((10, 10, 60, 50), fill=(200, 30, 30), outline=(0, 0, 0))
d.ellipse((50, 20, 110, 70), fill=(30, 120, 200))
d.line((0, 79, 119, 0), fill=(0, 150, 0), width=3)
d.polygon([(5, 70), (30, 60), (20, 78)], fill=(250, 200, 0))
im.save("drawn.png")
im.save("drawn.jpg", quality=85)
im.save("drawn.bmp")
im.save("drawn.tif")
im.convert("L").save("gray.png", optimize=True)
im.resize((60, 40), Image.LANCZOS).save("small.png")
im.rotate(30, expand=True, resample=Image.BICUBIC).save("rotated.png")
im.filter(ImageFilter.GaussianBlur(2)).save("blur.png")
im.filter(ImageFilter.FIND_EDGES).save("edges.png")
ImageOps.autocontrast(im.convert("L")).save("auto.png")
im.quantize(16).save("palette.gif")
thumb = im.copy()
thumb.thumbnail((32, 32))
thumb.save("thumb.jpg", quality=70, optimize=True, progressive=True)

back = Image.open("drawn.jpg")
back.load()
print("jpeg", back.size, back.mode, back.getpixel((30, 30)), back.getpixel((80, 45)))
print("mean", [round(x, 6) for x in ImageStat.Stat(Image.open("drawn.png")).mean])
print("diff bbox", ImageChops.difference(im, Image.open("drawn.png").convert("RGB")).getbbox())
print("gif", Image.open("palette.gif").mode, len(Image.open("palette.gif").getpalette()))
for name in ("drawn.png", "drawn.jpg", "drawn.bmp", "drawn.tif", "gray.png", "small.png", "rotated.png",
             "blur.png", "edges.png", "auto.png", "palette.gif", "thumb.jpg"):
    with open(name, "rb") as f:
        print(name, hashlib.sha256(f.read()).hexdigest()[:16])
