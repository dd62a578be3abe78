"""The server's HTML in the visitor's language (issue 19), as curl sees it: the upload page,
a listing, an upload's result page and an error page follow Accept-Language and the
filedrop-lang cookie (the cookie wins) and say so with `Vary: Accept-Language, Cookie`; a
language switch link sets the cookie; JSON and text answers stay English (they are an API);
a broken catalogue costs one log line and its language reads English, and SIGHUP reloads it."""

import json
import os
import re
import shutil
import signal
import time

from attack_support import multipart
from conftest import WEB_ROOT
from http_raw import fetch

HTML = {"Accept": "text/html"}


def varies_by_language(response):
    tokens = {token.strip().lower() for value in response.headers_named("Vary") for token in value.split(",")}
    return {"accept-language", "cookie"} <= tokens


def wait_until(predicate, timeout):
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.1)
    return True


def html_lang(body):
    return re.search(rb'<html lang="([^"]+)" dir="ltr">', body).group(1).decode()


def test_upload_page_follows_accept_language_with_vary(daemon):
    for field, lang, words in [("de-AT,de;q=0.9", "de", "Dateien senden"), ("zh-CN", "zh-Hans", "发送文件"),
                               ("es;q=0.2, fr;q=0.8", "fr", "Envoyer des fichiers"), ("it", "en", "Send files"),
                               ("zh-Hans-CN", "zh-Hans", "发送文件")]:
        response = fetch(daemon.url + "/", headers={**HTML, "Accept-Language": field})
        assert response.status == 200
        assert html_lang(response.body) == lang, field
        assert words.encode() in response.body, field
        assert b'<script type="application/json" id="page-strings">{"' in response.body
        assert varies_by_language(response)
        assert b"{{" not in response.body
        # The 304 of one language's copy carries the same Vary and policy; another language is a 200.
        again = fetch(daemon.url + "/", headers={**HTML, "Accept-Language": field,
                                                 "If-None-Match": response.header("ETag")})
        assert again.status == 304 and varies_by_language(again)
        assert "script-src 'self'" in again.header("Content-Security-Policy")
    german = fetch(daemon.url + "/", headers={"Accept-Language": "de"}).header("ETag")
    french = fetch(daemon.url + "/", headers={"Accept-Language": "fr", "If-None-Match": german})
    assert french.status == 200


def test_listing_and_error_pages_are_translated_and_the_cookie_wins(daemon):
    listing = fetch(daemon.url + "/files/", headers={**HTML, "Accept-Language": "en", "Cookie": "filedrop-lang=zh"})
    assert listing.status == 200 and html_lang(listing.body) == "zh-Hans"
    assert "<th><a href=\"?sort=name\">名称</a></th>".encode() in listing.body
    assert varies_by_language(listing)
    error = fetch(daemon.url + "/files/no-such-file.txt", headers={**HTML, "Accept-Language": "fr-CA"})
    assert error.status == 404 and html_lang(error.body) == "fr"
    assert "<h1>404 Introuvable</h1><p>Il n’y a rien ici.</p>".encode() in error.body
    assert "Retour à la page d’envoi".encode() in error.body
    assert varies_by_language(error)


def test_programs_get_english_whatever_the_language(daemon):
    text = fetch(daemon.url + "/files/no-such-file.txt", headers={"Accept-Language": "de"})
    assert text.body == b"404 Not Found: Nothing is here.\n"
    answer = fetch(daemon.url + "/files/no-such-file.txt", headers={"Accept": "application/json", "Accept-Language": "zh"})
    assert json.loads(answer.body) == {"error": "Nothing is here.", "status": 404}


def test_the_no_script_result_page_is_translated(daemon):
    headers, body = multipart([("file", "ergebnis.txt", b"Ergebnis\n")])
    response = fetch(daemon.url + "/upload.html", method="POST", body=body,
                     headers={**headers, **HTML, "Accept-Language": "de-CH"})
    assert response.status == 200 and html_lang(response.body) == "de"
    assert "<h1>1 Datei gespeichert</h1>".encode() in response.body
    assert varies_by_language(response)
    assert (daemon.save_dir / "ergebnis.txt").read_bytes() == b"Ergebnis\n"


def test_switch_link_sets_the_cookie_and_returns_to_the_page(daemon):
    response = fetch(daemon.url + "/files/?lang=es", headers=HTML)
    assert response.status == 303
    assert response.header("Location") == "/files/"
    cookie = response.header("Set-Cookie")
    assert cookie.startswith("filedrop-lang=es;") and "Path=/" in cookie and "SameSite=Lax" in cookie
    page = fetch(daemon.url + "/", headers={**HTML, "Cookie": cookie.split(";")[0], "Accept-Language": "de"})
    assert html_lang(page.body) == "es"
    # An unknown language is no switch: the page as usual.
    assert fetch(daemon.url + "/?lang=xx", headers=HTML).status == 200


def test_a_broken_catalogue_falls_back_to_english_and_sighup_reloads_it(daemon_factory, tmp_path):
    web = tmp_path / "web"
    shutil.copytree(WEB_ROOT, web)
    good = (web / "i18n-de.json").read_bytes()
    (web / "i18n-de.json").write_bytes(b'{"language.name": "Deutsch", "page.tagline": 7}')
    daemon = daemon_factory("--web-root", str(web))
    lines = daemon.wait_for_log_lines("i18n-de.json")
    assert len(lines) == 1 and "de pages are in English" in lines[0], lines
    page = fetch(daemon.url + "/", headers={**HTML, "Accept-Language": "de"})
    assert page.status == 200 and html_lang(page.body) == "de"
    assert b"Send files to this computer over the local network." in page.body

    (web / "i18n-de.json").write_bytes(good)
    os.kill(daemon.pid, signal.SIGHUP)
    assert wait_until(lambda: "Dateien über das lokale Netzwerk".encode()
                      in fetch(daemon.url + "/", headers={**HTML, "Accept-Language": "de"}).body, timeout=10)
    assert len(daemon.wait_for_log_lines("i18n-de.json")) == 1


def test_a_refusals_sentence_is_translated_for_browsers_and_english_for_programs(daemon):
    # A hidden name, refused before any byte is stored.
    for language, sentence in [("de", "Der Name &quot;.hidden.txt&quot; beginnt mit einem Punkt"),
                               ("zh-CN", "名称 &quot;.hidden.txt&quot; 以点开头")]:
        page = fetch(daemon.url + "/files/.hidden.txt", method="PUT", body=b"x",
                     headers={**HTML, "Accept-Language": language})
        assert page.status == 400
        assert sentence.encode() in page.body, page.body
        assert b"starts with a dot" not in page.body
        assert varies_by_language(page)
    text = fetch(daemon.url + "/files/.hidden.txt", method="PUT", body=b"x", headers={"Accept-Language": "de"})
    assert text.body == (b'400 Bad Request: The name ".hidden.txt" starts with a dot, which makes it hidden; '
                         b"this server does not accept hidden names.\n")
    answer = fetch(daemon.url + "/files/.hidden.txt", method="PUT", body=b"x",
                   headers={"Accept": "application/json", "Accept-Language": "zh"})
    assert "starts with a dot" in json.loads(answer.body)["error"]
    assert not (daemon.save_dir / ".hidden.txt").exists()


def test_a_wrong_password_is_said_in_the_readers_language(daemon_factory):
    from test_access import basic, password_hash
    daemon = daemon_factory("--access", "private", "--password-hash", password_hash())
    for language, sentence in [("fr", "Le mot de passe est incorrect."), ("es", "La contraseña es incorrecta.")]:
        page = fetch(daemon.url + "/files/", headers={**HTML, **basic("wrong"), "Accept-Language": language})
        assert page.status == 401
        assert sentence.encode() in page.body, page.body
    text = fetch(daemon.url + "/files/", headers={**basic("wrong"), "Accept-Language": "fr"})
    assert text.status == 401 and text.body == b"401 Unauthorized: The password is wrong.\n"
