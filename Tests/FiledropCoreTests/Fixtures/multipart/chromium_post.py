from playwright.sync_api import sync_playwright
import sys
files = ["files/notes.txt", "files/Prix €uro – été.txt", 'files/say "hi".txt']
with sync_playwright() as p:
    b = p.chromium.launch(executable_path="/usr/bin/chromium", args=["--no-sandbox"])
    page = b.new_page()
    page.goto("http://127.0.0.1:18181/")
    page.set_input_files("#files", files)
    with page.expect_navigation():
        page.click("#go")
    print(page.content()[:100])
    b.close()
