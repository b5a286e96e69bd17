"""Routes of the batch API; mounted before the API's catch-all 404 for /v1/…"""

from __future__ import annotations

from django.urls import path

from grounding_app.batch import api

urlpatterns = [
    path("v1/batchJobs", api.create, name="batch_api_create"),
    path("v1/batchJobs/<uuid:public_id>", api.detail, name="batch_api_detail"),
    path("v1/batchJobs/<uuid:public_id>:cancel", api.cancel, name="batch_api_cancel"),
    path("v1/batchJobs/<uuid:public_id>/results", api.results, name="batch_api_results"),
]
