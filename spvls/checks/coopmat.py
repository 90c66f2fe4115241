"""placeholder"""


def check(m):
    return []
