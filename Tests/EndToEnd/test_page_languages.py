"""The page in five languages (issue 19): Accept-Language picks English, 简体中文, Deutsch, Español
or Français, the page carries that language's strings only (and fetches no catalogue), the main flow (open, upload, see it
saved, see it listed) runs in German and Chinese, the language switch changes the page and the
server's listing and survives a reload, and the no-script form and its result page follow the
language too. Every language visited passes axe and logs no console error."""

import pytest

from page_support import UPLOAD_TIMEOUT_MS, assert_accessible, assert_no_problems, browser_page, expect, open_page  # noqa: F401 (fixture)
from tls_support import file_sha256

# What a browser set to each locale is shown: <html lang>, the drop zone's title (the server
# wrote it), and a state name the script writes from the page's strings.
LANGUAGES = {
    "en-US": ("en", "Drop files or folders here", "Cancelled"),
    "zh-CN": ("zh-Hans", "把文件或文件夹拖到这里", "已取消"),
    "de-AT": ("de", "Dateien oder Ordner hierher ziehen", "Abgebrochen"),
    "es-MX": ("es", "Suelta aquí archivos o carpetas", "Cancelada"),
    "fr-CA": ("fr", "Déposez des fichiers ou des dossiers ici", "Annulé"),
}

# The main flow's words: the row's state, the overall line, the list's summary.
FLOW = {
    "de-DE": ("Fertig", "1 von 1 Datei hochgeladen", "1 Datei, 8 KiB"),
    "zh-CN": ("完成", "已上传 1 / 1 个文件", "1 个文件，8 KiB"),
}


@pytest.mark.parametrize("locale", sorted(LANGUAGES))
def test_accept_language_picks_the_language_and_the_page_carries_only_its_strings(browser_page, daemon, locale):
    lang, drop_title, cancelled = LANGUAGES[locale]
    page = browser_page("desktop", locale=locale)
    catalogues = []
    page.on("request", lambda request: catalogues.append(request.url) if "/i18n-" in request.url else None)
    open_page(page, daemon)
    expect(page.locator("html")).to_have_attribute("lang", lang)
    expect(page.locator("html")).to_have_attribute("dir", "ltr")
    expect(page.locator("#dropzone-title")).to_have_text(drop_title)
    # The switch names the current language, in that language.
    expect(page.locator('.language-switch a[aria-current="true"]')).to_have_attribute("lang", lang)
    strings = page.evaluate("() => JSON.parse(document.getElementById('page-strings').textContent)")
    assert strings["queue.cancelled"] == cancelled
    others = [state for other, (_, _, state) in LANGUAGES.items() if other != locale]
    assert not [value for value in strings.values() if value in others]
    page.wait_for_load_state("networkidle")
    assert catalogues == []
    assert_accessible(page)
    assert_no_problems(page)


@pytest.mark.parametrize("locale,device", [("de-DE", "phone"), ("zh-CN", "desktop")])
def test_main_flow_in_another_language(browser_page, daemon_factory, tmp_path, locale, device):
    done, overall, summary = FLOW[locale]
    daemon = daemon_factory(fill=False)
    source = tmp_path / "bericht 报告.txt"
    source.write_bytes(b"x" * 8192)
    page = browser_page(device, locale=locale)
    open_page(page, daemon)
    assert_accessible(page)
    page.set_input_files("#file-input", str(source))
    row = page.locator(".upload").first
    expect(row).to_have_attribute("data-state", "done", timeout=UPLOAD_TIMEOUT_MS)
    expect(row.locator(".upload-state")).to_have_text(done)
    expect(page.locator("#overall-text")).to_contain_text(overall)
    expect(page.locator("#file-list")).to_contain_text(source.name, timeout=10_000)
    expect(page.locator("#listing-summary")).to_contain_text(summary)
    assert file_sha256(daemon.save_dir / source.name) == file_sha256(source)
    assert_accessible(page)
    assert_no_problems(page)


def test_switch_changes_the_page_and_the_listing_and_survives_a_reload(browser_page, daemon):
    page = browser_page("phone", locale="en-US")
    open_page(page, daemon)
    expect(page.locator("#files-heading")).to_have_text("Shared files")
    page.locator(".language-switch").get_by_role("link", name="Français").click()
    expect(page.locator("html")).to_have_attribute("lang", "fr")
    expect(page.locator("#files-heading")).to_have_text("Fichiers partagés")
    assert page.url == daemon.url + "/"
    page.reload()
    page.wait_for_function("() => document.getElementById('phone-url').textContent !== ''")
    expect(page.locator("#files-heading")).to_have_text("Fichiers partagés")
    # Text the script writes follows too (the folder the files go into).
    expect(page.locator("#destination-folder")).to_have_text("Tous les fichiers")
    assert_accessible(page)

    # The server's own listing follows the cookie the switch set, and has the switch as well.
    page.goto(daemon.url + "/files/")
    expect(page.locator("html")).to_have_attribute("lang", "fr")
    expect(page.locator("th").first).to_have_text("Nom")
    page.locator(".language-switch").get_by_role("link", name="Deutsch").click()
    expect(page.locator("html")).to_have_attribute("lang", "de")
    expect(page.locator("th").nth(1)).to_have_text("Größe")
    assert page.url == daemon.url + "/files/"
    assert_accessible(page)
    page.goto(daemon.url + "/")
    expect(page.locator("#files-heading")).to_have_text("Geteilte Dateien")
    assert_no_problems(page)


def test_the_no_script_form_and_its_result_follow_the_language(chromium, daemon, tmp_path):
    source = tmp_path / "sin-script.txt"
    source.write_bytes(b"enviado sin JavaScript\n")
    context = chromium.new_context(locale="es-ES", java_script_enabled=False)
    try:
        page = context.new_page()
        page.goto(daemon.url + "/")
        expect(page.locator("label[for=file-input]")).to_have_text("Elige los archivos que quieres enviar")
        page.set_input_files("input[name=file]", str(source))
        with page.expect_navigation():
            page.locator("button[type=submit]").click()
        expect(page.locator("h1")).to_have_text("1 archivo guardado")
        # No axe here: it runs as a script, which this context has switched off.
        expect(page.get_by_role("link", name="Subir más archivos")).to_be_visible()
    finally:
        context.close()
    assert (daemon.save_dir / source.name).read_bytes() == source.read_bytes()
