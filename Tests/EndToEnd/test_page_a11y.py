"""The page for keyboards, screen readers and phones (issue 19, defects 7 and 8): axe-core
(WCAG 2.2 AA plus AAA contrast) finds nothing in the states the page goes through; focus
never falls to the body after Remove, Clear finished or opening a folder; a file's own message
is heard before "All 3 uploads finished"; names carry no glyph and no "/"; the drop zone's
name is its visible text; borders and tracks reach 3:1; a phone is never told to drop."""

import pytest

from page_support import assert_accessible, assert_no_problems, browser_page, expect, new_page, open_page

RECORD_ANNOUNCEMENTS = """
    window.announcements = [];
    document.addEventListener('DOMContentLoaded', () => {
        new MutationObserver(() => window.announcements.push(document.getElementById('announcer').textContent))
            .observe(document.getElementById('announcer'), { childList: true, characterData: true, subtree: true });
    });
"""


def small_files(tmp_path, count):
    paths = []
    for index in range(count):
        path = tmp_path / f"file-{index}.txt"
        path.write_bytes(f"file {index}\n".encode())
        paths.append(path)
    return paths


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("device", ["phone", "desktop"])
def test_no_axe_violation_in_any_state(browser_page, daemon_factory, tmp_path, device, scheme):
    daemon = daemon_factory("--max-upload-size", "64K")
    page = browser_page(device, scheme)
    open_page(page, daemon)
    expect(page.locator("#file-list")).to_contain_text("plain.txt")
    assert_accessible(page)

    too_big = tmp_path / "too-big.bin"
    too_big.write_bytes(b"x" * 100_000)
    page.set_input_files("#file-input", [str(path) for path in small_files(tmp_path, 2)] + [str(too_big)])
    expect(page.locator('.upload[data-state="done"]')).to_have_count(2, timeout=30_000)
    expect(page.locator('.upload[data-state="failed"]')).to_have_count(1)
    assert_accessible(page)

    page.locator("#filter").fill("file-")
    expect(page.locator("#listing-summary")).to_contain_text("shown")
    page.locator("#sort").select_option("size")
    assert_accessible(page)
    page.locator("#filter").fill("")

    page.locator("#file-list a", has_text="sub dir").click()
    expect(page.locator("#breadcrumb [aria-current]")).to_have_text("sub dir")
    page.get_by_text("Send text as a file").click()
    page.locator("details.phone summary").click()
    expect(page.locator("#phone-url")).to_be_visible()
    assert_accessible(page)
    assert_no_problems(page, allowed=["413"])


def test_focus_stays_in_the_queue_after_remove_and_goes_to_the_drop_zone_at_the_end(browser_page, daemon, tmp_path):
    page = browser_page("desktop")
    open_page(page, daemon)
    page.set_input_files("#file-input", [str(path) for path in small_files(tmp_path, 2)])
    expect(page.locator('.upload[data-state="done"]')).to_have_count(2, timeout=30_000)
    page.get_by_role("button", name="Remove file-0.txt").focus()
    page.keyboard.press("Enter")
    expect(page.get_by_role("button", name="Remove file-1.txt")).to_be_focused()
    page.keyboard.press("Enter")
    expect(page.locator("#queue")).to_be_hidden()
    expect(page.locator("#dropzone")).to_be_focused()


def test_focus_after_clear_finished_stays_in_the_queue_while_uploads_remain(browser_page, daemon, tmp_path):
    page = browser_page("desktop")
    open_page(page, daemon)
    page.set_input_files("#file-input", [str(path) for path in small_files(tmp_path, 1)])
    expect(page.locator('.upload[data-state="done"]')).to_have_count(1, timeout=30_000)
    page.get_by_role("button", name="Clear finished").focus()
    page.keyboard.press("Enter")
    expect(page.locator("#dropzone")).to_be_focused()


def test_opening_a_folder_moves_focus_to_where_you_are(browser_page, daemon):
    page = browser_page("desktop")
    open_page(page, daemon)
    page.locator("#file-list a", has_text="sub dir").focus()
    page.keyboard.press("Enter")
    here = page.locator("#breadcrumb [aria-current]")
    expect(here).to_have_text("sub dir")
    expect(here).to_be_focused()
    page.locator("#breadcrumb a", has_text="All files").focus()
    page.keyboard.press("Enter")
    expect(here).to_have_text("All files")
    expect(here).to_be_focused()


def test_each_files_message_is_heard_before_the_queue_is_said_finished(chromium, daemon, tmp_path):
    page = new_page(chromium, "desktop")
    try:
        page.add_init_script(RECORD_ANNOUNCEMENTS)
        open_page(page, daemon)
        page.set_input_files("#file-input", [str(path) for path in small_files(tmp_path, 3)])
        expect(page.locator('.upload[data-state="done"]')).to_have_count(3, timeout=30_000)
        page.wait_for_function("() => window.announcements.some((text) => text.includes('All 3 uploads finished'))")
        heard = " ".join(page.evaluate("window.announcements"))
        finished = heard.index("All 3 uploads finished")
        for index in range(3):
            assert heard.index(f"file-{index}.txt uploaded.") < finished, heard
    finally:
        page.context.close()


@pytest.mark.parametrize("device", ["phone", "desktop"])
def test_names_have_no_glyph_and_the_drop_zone_is_named_by_its_text(browser_page, daemon, device):
    page = browser_page(device)
    open_page(page, daemon, "/#folder=" + "%2Ffiles%2Fsub%2520dir%2F")
    expect(page.locator("#breadcrumb [aria-current]")).to_have_text("sub dir")
    expect(page.locator("details.phone summary")).to_have_accessible_name("Open this page on a phone")
    expect(page.locator("#text-summary")).to_have_accessible_name("Send text as a file")
    spoken = [line for line in page.locator("#breadcrumb").aria_snapshot().splitlines() if "/url:" not in line]
    assert not [line for line in spoken if "/" in line], spoken
    separators = page.evaluate("""() => [...document.querySelectorAll('#breadcrumb li')]
        .map((li) => getComputedStyle(li, '::before').content)""")
    assert all(content in ("none", "normal", '""') for content in separators), separators
    zone = page.locator("#dropzone")
    visible = " ".join(zone.inner_text().split("\n")[:2]) if device == "desktop" else zone.inner_text().split("\n")[0]
    expect(zone).to_have_accessible_name(" ".join(visible.split()))
    expect(zone).to_have_accessible_description(page.locator("#dropzone-hint").inner_text())


def contrast(first, second):
    def luminance(rgb):
        def channel(value):
            value /= 255
            return value / 12.92 if value <= 0.03928 else ((value + 0.055) / 1.055) ** 2.4
        red, green, blue = (channel(value) for value in rgb)
        return 0.2126 * red + 0.7152 * green + 0.0722 * blue
    light, dark = sorted([luminance(first), luminance(second)], reverse=True)
    return (light + 0.05) / (dark + 0.05)


def rgb(text):
    return [int(float(part)) for part in text[text.index("(") + 1:text.index(")")].split(",")[:3]]


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_the_drop_zone_border_and_the_progress_track_reach_3_to_1(browser_page, daemon, scheme):
    page = browser_page("desktop", scheme)
    open_page(page, daemon)
    colours = page.evaluate("""() => {
        const style = (element) => getComputedStyle(element);
        const zone = document.getElementById('dropzone');
        const panel = zone.closest('.panel');
        const bar = document.getElementById('overall-progress');
        return { zone: style(zone).borderTopColor, zoneStyle: style(zone).borderTopStyle, inside: style(zone).backgroundColor,
                 panel: style(panel).backgroundColor, track: style(bar).borderTopColor };
    }""")
    assert colours["zoneStyle"] == "dashed"
    assert contrast(rgb(colours["zone"]), rgb(colours["panel"])) >= 3, colours
    assert contrast(rgb(colours["zone"]), rgb(colours["inside"])) >= 3, colours
    assert contrast(rgb(colours["track"]), rgb(colours["panel"])) >= 3, colours


def test_a_phone_is_never_told_to_drop_and_a_tap_leaves_no_highlight(browser_page, daemon, tmp_path):
    page = browser_page("phone")
    open_page(page, daemon)
    zone = page.locator("#dropzone")
    expect(zone).not_to_contain_text("Drop")
    expect(zone).not_to_contain_text("paste")
    expect(zone).to_have_accessible_name("Choose files to send")
    expect(page.locator("#folder-button")).to_be_hidden()
    resting = zone.evaluate("(element) => getComputedStyle(element).borderTopColor")
    source = small_files(tmp_path, 1)[0]
    with page.expect_file_chooser() as chooser:
        zone.tap()
    chooser.value.set_files(str(source))
    expect(page.locator('.upload[data-state="done"]')).to_have_count(1, timeout=30_000)
    expect(zone).not_to_have_class("dropzone js-only dragging")
    assert zone.evaluate("(element) => getComputedStyle(element).borderTopColor") == resting


def test_file_icons_are_sheets_not_checkboxes(browser_page, daemon):
    page = browser_page("desktop")
    open_page(page, daemon)
    expect(page.locator("#file-list")).to_contain_text("plain.txt")
    icon = page.locator(".entry-file .entry-icon").first
    shape = icon.evaluate("""(element) => { const style = getComputedStyle(element);
        const box = element.getBoundingClientRect();
        return { clip: style.clipPath, border: style.borderTopStyle, tall: box.height > box.width * 1.15 }; }""")
    assert shape["clip"].startswith("polygon") and shape["border"] == "none" and shape["tall"], shape


def tab_to(page, selector, limit=40):
    """Presses Tab until `selector` has the focus (as a keyboard-only person would)."""
    for _ in range(limit):
        page.keyboard.press("Tab")
        if page.evaluate("(selector) => document.activeElement.matches(selector)", selector):
            return
    pytest.fail(f"Tab never reached {selector}")


def test_the_main_flow_by_keyboard_alone(browser_page, daemon, tmp_path):
    page = browser_page("desktop")
    open_page(page, daemon)
    source = small_files(tmp_path, 1)[0]
    tab_to(page, "#dropzone")
    with page.expect_file_chooser() as chooser:
        page.keyboard.press("Space")
    chooser.value.set_files(str(source))
    expect(page.locator('.upload[data-state="done"]')).to_have_count(1, timeout=30_000)

    tab_to(page, "#text-summary")
    page.keyboard.press("Enter")
    tab_to(page, "#text-body")
    page.keyboard.type("typed with the keyboard")
    tab_to(page, "#text-name")
    page.keyboard.press("Control+A")
    page.keyboard.type("keys.txt")
    tab_to(page, "#send-text")
    page.keyboard.press("Enter")
    expect(page.locator('.upload[data-state="done"]')).to_have_count(2, timeout=30_000)
    assert (daemon.save_dir / "keys.txt").read_text() == "typed with the keyboard"

    tab_to(page, '#file-list a.entry-name[href^="#folder="]')
    page.keyboard.press("Enter")
    expect(page.locator("#breadcrumb [aria-current]")).to_have_text("sub dir")
    expect(page.locator("#destination")).to_have_text("Files go into All files / sub dir")
    assert_no_problems(page)
