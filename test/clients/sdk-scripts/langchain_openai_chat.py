"""langchain-openai as an application uses it: ChatOpenAI with a base URL and a local tool bound
(bind_tools), the tool round written by hand. Run by the clients suite from the Python SDKs' venv
(sdk-definitions.ts)."""
import os

from langchain_core.messages import HumanMessage, ToolMessage
from langchain_core.tools import tool
from langchain_openai import ChatOpenAI

env = os.environ


@tool
def read_file(path: str) -> str:
    """Reads a text file and returns its content."""
    with open(path, encoding="utf-8") as file:
        return file.read()


chat = ChatOpenAI(model=env["MODEL"], base_url=env["GATEWAY_URL"] + "/v1", api_key=env["GATEWAY_KEY"], max_retries=0)
model = chat.bind_tools([read_file]) if env["CHECK"] == "tool" else chat
messages = [HumanMessage(env["PROMPT"])]
reply = model.invoke(messages)
for _ in range(4):
    if not reply.tool_calls:
        break
    messages.append(reply)
    for call in reply.tool_calls:
        messages.append(ToolMessage(content=read_file.invoke(call["args"]), tool_call_id=call["id"]))
    reply = model.invoke(messages)
print(reply.text if isinstance(reply.text, str) else reply.text())
