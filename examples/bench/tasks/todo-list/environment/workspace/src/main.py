# TODO: read the config file.
import sys


def main():
    pass
