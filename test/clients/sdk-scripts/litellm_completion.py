"""litellm as an application uses it: litellm.completion with tools (model "openai/<model>", api_base), the
tool round written by hand. Run by the clients suite from the Python SDKs' venv (sdk-definitions.ts)."""
import json
import os

import litellm

env = os.environ
READ_FILE = {
    "type": "function",
    "function": {
        "name": "read_file",
        "description": "Reads a text file and returns its content.",
        "parameters": {
            "type": "object",
            "properties": {"path": {"type": "string", "description": "the path of the file"}},
            "required": ["path"],
        },
    },
}
extra = {"tools": [READ_FILE]} if env["CHECK"] == "tool" else {}
messages = [{"role": "user", "content": env["PROMPT"]}]
for _ in range(5):
    response = litellm.completion(
        model="openai/" + env["MODEL"],
        api_base=env["GATEWAY_URL"] + "/v1",
        api_key=env["GATEWAY_KEY"],
        messages=messages,
        num_retries=0,
        **extra,
    )
    message = response.choices[0].message
    if not message.tool_calls:
        break
    messages.append(message.model_dump(exclude_none=True))
    for call in message.tool_calls:
        with open(json.loads(call.function.arguments)["path"], encoding="utf-8") as file:
            messages.append({"role": "tool", "tool_call_id": call.id, "content": file.read()})
print(message.content)
