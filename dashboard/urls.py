from __future__ import annotations

from django.contrib.auth import views as auth_views
from django.urls import URLPattern, URLResolver, path

from dashboard.api import api
from dashboard.views import transcripts

urlpatterns: list[URLPattern | URLResolver] = [
    path("api/", api.urls),
    path("login/", auth_views.LoginView.as_view(), name="login"),
    path("logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("", transcripts.transcript_list, name="transcript-list"),
    path("transcripts/upload/", transcripts.transcript_upload, name="transcript-upload"),
    path("transcripts/<int:transcript_id>/", transcripts.transcript_detail, name="transcript-detail"),
    path("transcripts/<int:transcript_id>/delete/", transcripts.transcript_delete, name="transcript-delete"),
]
