def round_half(x):
    # FIXME: this rounds the wrong way.
    return int(x)
