print("retouch")
