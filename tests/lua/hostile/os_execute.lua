-- os is not in the sandbox
os.execute("touch /tmp/mcpp_policy_pwned")
return {}
