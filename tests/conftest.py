import os

from hypothesis import HealthCheck, settings

# "ci" runs more examples; "dev" keeps the inner loop quick. CI sets nothing: ci is the default.
settings.register_profile("ci", max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("dev", max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))
