"""Sign-in throttling through a real daphne and HTTP client: wrong passwords are counted per username and
per client address, and past the limit every attempt (the right password too) gets 429 + Retry-After."""

from __future__ import annotations

import uuid

import httpx
import pytest
from django.conf import settings

from tests.dashboard.security_support import FAST_HASHERS, csrf_token, daphne_with, sign_in

pytestmark = pytest.mark.django_db(transaction=True)

PASSWORD = "login-security-password-1"


@pytest.fixture(scope="module")
def server(django_db_setup, django_db_blocker):
    """The default throttle rates (10 failures per username, 50 per address, in 15 minutes)."""
    with daphne_with(django_db_blocker, PASSWORD_HASHERS=FAST_HASHERS) as url:
        yield url


@pytest.fixture
def make_user(django_user_model, settings):
    settings.PASSWORD_HASHERS = FAST_HASHERS

    def make(username: str):
        return django_user_model.objects.create_user(username=username, password=PASSWORD)

    return make


def _from(address: str, base: str) -> httpx.Client:
    return httpx.Client(base_url=base, transport=httpx.HTTPTransport(local_address=address), timeout=20)


def test_thirty_wrong_passwords_do_not_all_get_a_normal_answer(server, make_user):
    make_user("alice")
    with _from("127.0.0.21", server) as http:
        token = csrf_token(http)
        answers = [sign_in(http, "alice", f"wrong-{i}", token) for i in range(30)]
        right_password = sign_in(http, "alice", PASSWORD, token)
    codes = [a.status_code for a in answers]
    assert codes == [200] * 10 + [429] * 20
    assert "Please enter a correct username and password" in answers[0].text
    limited = answers[-1]
    assert 1 <= int(limited.headers["Retry-After"]) <= 15 * 60
    assert "Too many failed sign-ins" in limited.text
    # Past the limit the password is not even checked: the right one gets the same answer.
    assert right_password.status_code == 429
    assert "sessionid" not in http.cookies


def test_the_username_count_ignores_case_and_spaces(server, make_user):
    make_user("bob")
    with _from("127.0.0.22", server) as http:
        token = csrf_token(http)
        codes = [sign_in(http, name, "wrong", token).status_code for name in ["bob", " BOB ", "Bob"] * 4]
    assert codes == [200] * 10 + [429] * 2


def test_a_locked_username_does_not_lock_out_other_users(server, make_user):
    make_user("carol")
    make_user("dave")
    with _from("127.0.0.23", server) as http:
        token = csrf_token(http)
        for _ in range(10):
            sign_in(http, "carol", "wrong", token)
        assert sign_in(http, "carol", "wrong", token).status_code == 429
        signed_in = sign_in(http, "dave", PASSWORD, token)
    assert signed_in.status_code == 302 and signed_in.headers["Location"] == "/"


def test_signing_in_clears_the_username_count(server, make_user):
    make_user("erin")
    with _from("127.0.0.24", server) as http:
        token = csrf_token(http)
        first = [sign_in(http, "erin", "wrong", token).status_code for _ in range(9)]
        assert sign_in(http, "erin", PASSWORD, token).status_code == 302
    with _from("127.0.0.24", server) as http:
        token = csrf_token(http)
        again = [sign_in(http, "erin", "wrong", token).status_code for _ in range(9)]
    assert first == again == [200] * 9


def test_one_address_trying_many_usernames_is_throttled(django_db_blocker, make_user):
    throttle = {**settings.TRIMSCOPE_THROTTLE, "login_address": "6/15minutes"}
    make_user("frank")
    with (
        daphne_with(django_db_blocker, PASSWORD_HASHERS=FAST_HASHERS, TRIMSCOPE_THROTTLE=throttle) as url,
        _from("127.0.0.25", url) as http,
    ):
        token = csrf_token(http)
        codes = [sign_in(http, f"user-{i}", "wrong", token).status_code for i in range(8)]
        also_refused = sign_in(http, "frank", PASSWORD, token)
        with _from("127.0.0.26", url) as elsewhere:
            welcome = sign_in(elsewhere, "frank", PASSWORD)
    assert codes == [200] * 6 + [429] * 2
    assert also_refused.status_code == 429
    assert welcome.status_code == 302


@pytest.mark.services
@pytest.mark.skipif(not settings.REDIS_URL, reason="needs REDIS_URL (the scale-out pass sets it)")
def test_two_workers_share_the_count_through_redis(django_db_blocker, make_user):
    """Failures on worker A count on worker B: the limit is per deployment, not per process."""
    username = "grace"
    make_user(username)
    overrides = {"PASSWORD_HASHERS": FAST_HASHERS, "TRIMSCOPE_THROTTLE_KEY_PREFIX": uuid.uuid4().hex}
    with (
        daphne_with(django_db_blocker, **overrides) as url_a,
        daphne_with(django_db_blocker, **overrides) as url_b,
        _from("127.0.0.27", url_a) as a,
        _from("127.0.0.27", url_b) as b,
    ):
        token_a, token_b = csrf_token(a), csrf_token(b)
        codes = [
            sign_in(a if i % 2 else b, username, "wrong", token_a if i % 2 else token_b).status_code
            for i in range(12)
        ]
    assert codes == [200] * 10 + [429] * 2
